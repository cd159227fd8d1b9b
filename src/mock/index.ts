// The mock's public entry: start a server for a scenario, load and validate
// scenario files, count tokens by the documented rule. Everything the runner and
// the tests need comes from here; the modules behind it are NOT a public API.

export { startMock, ERROR_TYPES } from './server.ts';
export type { Clock, MockOptions, MockServer } from './server.ts';
export { loadScenario, parseScenario, ScenarioError } from './scenario.ts';
export { countTokens, flattenRequest, systemText, type CountAs } from './tokens.ts';
export type { FlatBlock } from './tokens.ts';
export { minCacheableTokens, MIN_CACHEABLE_TOKENS, DEFAULT_MIN_CACHEABLE_TOKENS, LOOKBACK_BLOCKS, isModel, cachePrices, weighUsage, CACHE_PRICES, STANDARD_CACHE_PRICES, type CachePrices } from './cache.ts';
export { route, matches } from './route.ts';
export type * from './types.ts';
