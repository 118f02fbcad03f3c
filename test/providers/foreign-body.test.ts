/**
 * A 200 whose body is not the API's JSON (a proxy's HTML page, JSON cut short) is a transient ServerFailure that says
 * what came back, for both adapters, against a tiny hostile server on 127.0.0.1; a completion labelled text/plain is
 * still read. Before: OpenAI read `<html>oops</html>` as an answer without text ("no answer text: no candidate", the
 * row failed at once); Gemini called it a connection failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/contract.js';
import { ServerFailure } from '../../src/providers/failures.js';
import { isJsonContentType } from '../../src/providers/foreign-body.js';
import { createGeminiCaller } from '../../src/providers/gemini/gemini-caller.js';
import { createOpenAiCaller } from '../../src/providers/openai/openai-caller.js';
import { ParamLadder } from '../../src/providers/openai/param-ladder.js';
import { failureAction } from '../../src/schedule/failure-policy.js';

const KEY = 'sk-test-foreign-0123456789abcdef';
const request: ModelRequest = { model: 'gpt-4o-mini', prompt: 'Is it yes?', output: { kind: 'labels', labels: ['yes', 'no'] }, reasoning: 'least' };
const completion = JSON.stringify({ id: 'c', object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: '{"label":"yes"}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 3 } });

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server answering every request 200 with `body` as `contentType`; its base URL. */
async function hostile(contentType: string, body: string): Promise<string> {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

const openAi = (url: string) => createOpenAiCaller({ apiKey: KEY, baseUrl: `${url}/v1`, timeoutMs: 10_000, ladder: new ParamLadder(() => undefined) });
const gemini = (url: string) => createGeminiCaller({ auth: { kind: 'api-key', apiKey: KEY }, baseUrl: url, timeoutMs: 10_000 });

describe('a 200 that is not the API JSON', () => {
  it('OpenAI: an HTML page on 200 is a ServerFailure naming the content type, retried without failing the row', async () => {
    const failure = await failureOf(openAi(await hostile('text/html', '<html>oops</html>')).generate(request));
    expect(failure).toBeInstanceOf(ServerFailure);
    expect((failure as ServerFailure).httpStatus).toBe(200);
    expect((failure as ServerFailure).message).toBe('HTTP 200 with a text/html body, not a chat completion: oops');
    const action = failureAction(failure as ServerFailure, { attempts: 0, maxAttempts: 3, sent: 1, endpointHealthy: true, random: () => 0.5 });
    expect(action.kind).toBe('retry');
  });

  it('OpenAI: a JSON object without choices is not an answer either; a completion labelled text/plain is read', async () => {
    const failure = await failureOf(openAi(await hostile('application/json', '{"status":"ok"}')).generate(request));
    expect((failure as ServerFailure).message).toBe('HTTP 200 with an application/json body, not a chat completion: {"status":"ok"}');
    await new Promise((resolve) => server!.close(resolve));
    const answer = await openAi(await hostile('text/plain', completion)).generate(request);
    expect(answer.text).toBe('yes');
  });

  it('OpenAI: JSON cut short on 200 is a ServerFailure saying so', async () => {
    const failure = await failureOf(openAi(await hostile('application/json', '{"id":"c","choi')).generate(request));
    expect(failure).toBeInstanceOf(ServerFailure);
    expect((failure as ServerFailure).message).toMatch(/^HTTP 200 with an application\/json body, not a chat completion: .*JSON/);
  });

  it('Gemini: an HTML page on 200 is a ServerFailure naming the content type', async () => {
    const failure = await failureOf(gemini(await hostile('text/html; charset=utf-8', '<html><body>oops</body></html>')).generate({ ...request, model: 'gemini-2.5-flash' }));
    expect(failure).toBeInstanceOf(ServerFailure);
    expect((failure as ServerFailure).message).toBe('HTTP 200 with a text/html body, not a GenerateContentResponse: oops');
  });

  it('Gemini: JSON cut short on 200 is a ServerFailure, not a connection failure', async () => {
    const failure = await failureOf(gemini(await hostile('application/json', '{"candidates":[{"cont')).generate({ ...request, model: 'gemini-2.5-flash' }));
    expect(failure).toBeInstanceOf(ServerFailure);
    expect((failure as ServerFailure).message).toMatch(/^HTTP 200 with an application\/json body, not a GenerateContentResponse: .*JSON/);
  });

  it('isJsonContentType: JSON media types and an absent header pass; others do not', () => {
    expect(['application/json', 'application/json; charset=UTF-8', 'application/problem+json', null, ''].map(isJsonContentType)).toEqual([true, true, true, true, true]);
    expect(['text/html', 'text/plain', 'application/octet-stream'].map(isJsonContentType)).toEqual([false, false, false]);
  });
});
