// Peer (a): what a TypeScript developer writes with the official SDK and p-queue, following both libraries' docs:
// @google/genai with its own retries on (httpOptions.retryOptions: 5 attempts, exponential backoff that ignores
// RetryInfo), and p-queue's rate-limit pattern with the concurrency and interval cap tuned to the declared RPM.
// One queue per key, each given the declared per-project RPM (the common belief that limits are per key).
import { GoogleGenAI, Type } from '@google/genai';
import PQueue from 'p-queue';
import { args, finish, keys, LABELS, prompts } from './common.mjs';

const a = args();
const rows = prompts(a.rows);
const keyList = keys(a.keys);
const rpm = Number(a.rpm);
const startedAt = Date.now();
const lanes = keyList.map(({ key }) => ({
  ai: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: a.baseUrl, retryOptions: { attempts: 5 } } }),
  queue: new PQueue({ concurrency: Math.max(1, Math.ceil(rpm / 60)), interval: 60_000, intervalCap: rpm }),
}));
const answers = await Promise.all(
  rows.map((prompt, i) => {
    const lane = lanes[i % lanes.length];
    return lane.queue.add(async () => {
      try {
        const response = await lane.ai.models.generateContent({
          model: 'gemini-2.5-flash',
          contents: prompt,
          config: { temperature: 0, responseMimeType: 'text/x.enum', responseSchema: { type: Type.STRING, enum: LABELS }, thinkingConfig: { thinkingBudget: 0 } },
        });
        return response.text ?? new Error('no text');
      } catch (error) {
        return error;
      }
    });
  }),
);
finish(a.out, answers, startedAt);
