import Anthropic from '@anthropic-ai/sdk';
import { b } from './b.ts';
export const x: number = b + (Anthropic ? 1 : 0);
