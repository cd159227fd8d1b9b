// The example `npm run mock` prints: a curl command the scenario answers at once, so that
// a learner's first request works. Its own file so that the tests can check the example for
// any scenario without starting the command (src/mock/cli.ts prints it).

import type { Scenario } from './types.ts';

/**
 * A request the scenario answers at once: its first prompt, sent the way the main track
 * expects it (the system text its match asks for, the tools its first turn calls: a real
 * model only calls tools it was offered, and the mock refuses a script that does otherwise).
 */
function exampleRequest(scenario: Scenario): Record<string, unknown> {
  const name = 'main' in scenario.tracks ? 'main' : Object.keys(scenario.tracks)[0]!;
  const track = scenario.tracks[name]!;
  const names = [...new Set((track.turns[0]?.tool_calls ?? []).map((c) => c.name))];
  const system = track.match?.system;
  const prompt = [track.match?.first_user, track.match?.user].find((t) => t !== undefined && !scenario.prompts[0]!.includes(t));
  return {
    model: scenario.model ?? 'claude-sonnet-4-6', max_tokens: 256,
    ...(system !== undefined && { system }),
    ...(names.length > 0 && { tools: names.map((n) => ({ name: n, description: `the scenario's ${n} tool`, input_schema: { type: 'object' } })) }),
    messages: [{ role: 'user', content: prompt === undefined ? scenario.prompts[0] : `${scenario.prompts[0]} ${prompt}` }],
  };
}

/** The curl command line for `url`, as two lines (a shell continuation between them). */
export function curlExample(scenario: Scenario, url: string): [string, string] {
  const example = JSON.stringify(exampleRequest(scenario));
  return [
    `curl -s ${url}/v1/messages -H 'x-api-key: any' -H 'anthropic-version: 2023-06-01' \\`,
    `  -H 'content-type: application/json' -d '${example.replace(/'/g, "'\\''")}'`,
  ];
}
