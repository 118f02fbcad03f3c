// Per-row CPU of the work the provider seam puts on each request, in process, after `npm run build`: building the
// neutral request of a row (src/prompt/build-request.ts), mapping it to the Gemini call (src/providers/gemini/
// gemini-request.ts), reading a response into the neutral answer (read-answer.ts) and judging it (src/answers/).
// Prints ns per row for each part and for the whole, median of 7 rounds of 200,000 rows.
//
//   npm run build && node bench/request-path.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { requestBuilder } = await import(path.join(dist, 'prompt', 'build-request.js'));
const { geminiCall } = await import(path.join(dist, 'providers', 'gemini', 'gemini-request.js'));
const { readAnswer } = await import(path.join(dist, 'providers', 'gemini', 'read-answer.js'));
const { answerJudge } = await import(path.join(dist, 'answers', 'judge-answer.js'));
const { compileTemplate } = await import(path.join(dist, 'prompt', 'template.js'));

const labels = ['billing', 'shipping', 'other'];
const response = {
  candidates: [{ content: { parts: [{ text: 'billing' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 1, totalTokenCount: 21 },
  modelVersion: 'gemini-2.5-flash',
};
const build = requestBuilder({
  model: 'gemini-2.5-flash',
  template: compileTemplate('Classify this support ticket: {{text}}', ['id', 'text']),
  system: undefined,
  labels,
  schema: undefined,
  temperature: 0,
  maxOutputTokens: undefined,
  thinkingBudget: undefined,
});
const judge = answerJudge({ kind: 'labels', labels });
const N = 200_000;
const ROUNDS = 7;

/** ns per call of `f` over N calls; `f` returns something to keep. */
function perCall(f) {
  let sink = 0;
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += f(i) ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - t) / N;
  return sink < 0 ? ns + 1 : ns;
}
const request = build(['1', 'ticket']);
const answer = readAnswer(response);
const parts = {
  'build the request': (i) => build(['1', `ticket ${i}`]),
  'map it to generateContent': () => geminiCall(request),
  'read the answer': () => readAnswer(response),
  judge: () => judge(answer),
  'whole row': (i) => geminiCall(build(['1', `ticket ${i}`])).contents.length + judge(readAnswer(response)).kind.length,
};
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [name, f] of Object.entries(parts)) {
  const runs = Array.from({ length: ROUNDS }, () => perCall(f));
  console.log(`${name.padEnd(26)} ${median(runs).toFixed(0).padStart(5)} ns/row (rounds: ${runs.map((x) => x.toFixed(0)).join(' ')})`);
}
console.log(`node ${process.version}`);
