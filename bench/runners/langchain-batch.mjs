// Peer (b): LangChain.js as its docs suggest for bulk calls: ChatGoogleGenerativeAI (maxRetries 6) and
// `.batch(prompts, { maxConcurrency })`, concurrency tuned to the declared RPM; rows split evenly over the keys, one
// model per key. `returnExceptions` keeps one failed row from failing the whole batch.
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { args, finish, keys, prompts } from './common.mjs';

const a = args();
const rows = prompts(a.rows);
const keyList = keys(a.keys);
const rpm = Number(a.rpm);
const startedAt = Date.now();
const shares = keyList.map(() => []);
rows.forEach((p, i) => shares[i % keyList.length].push(i));
const answers = new Array(rows.length);
await Promise.all(
  keyList.map(async ({ key }, k) => {
    const model = new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', apiKey: key, baseUrl: a.baseUrl, maxRetries: 6, temperature: 0 });
    const mine = shares[k];
    const results = await model.batch(
      mine.map((i) => `${rows[i]}\nAnswer with exactly one word: yes or no.`),
      { maxConcurrency: Math.max(1, Math.ceil(rpm / 60)) },
      { returnExceptions: true },
    );
    results.forEach((r, j) => {
      answers[mine[j]] = r instanceof Error ? r : String(r.content).trim().replace(/[.!]$/, '');
    });
  }),
);
finish(a.out, answers, startedAt);
