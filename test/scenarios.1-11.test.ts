// Chapters 1-11: every scenario, the demo over HTTP where the chapter uses the wire in a new
// way, and the chapters' docs (test/scenario-suite.ts).
// Also the docs that belong to no chapter.

import { scenarioSuite } from './scenario-suite.ts';

scenarioSuite(0);
