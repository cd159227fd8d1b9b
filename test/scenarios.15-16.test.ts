// Chapters 15-16: every scenario, the demo over HTTP where the chapter uses the wire in a new
// way, and the chapters' docs (test/scenario-suite.ts).

import { scenarioSuite } from './scenario-suite.ts';

scenarioSuite(2);
