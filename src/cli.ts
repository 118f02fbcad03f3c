/**
 * The `gemini-batch` program (commander): classify, plan, status, report, cancel, simulate. Commands and option names are the CLI
 * contract of docs/design.md; exit codes are in ./errors.ts (`ExitCode`).
 */
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, GeminiBatchError } from './errors.js';
import { redactSecrets } from './config/known-secrets.js';
import type { RawClassifyOptions } from './config/classify-config.js';
import type { Io } from './io.js';
import { commandPrefix } from './invocation.js';
import { TOOL_VERSION } from './version.js';

/**
 * Options of `classify` that do nothing in `plan` (no output is written, no request sent): `plan` still accepts them, so
 * that a classify command line is planned by changing its first word, but its --help does not list them.
 */
const CLASSIFY_ONLY = new Set(['--output', '--report', '--workers-per-key', '--timeout', '--max-attempts', '--json', '--temperature', '--no-escape-formulas', '--answer-column', '--batch-size', '--batch-poll', '--batch-deadline', '--batch-fallback']);

/** Adds the options of `classify`; for `plan`, the ones that do nothing there are accepted but hidden. */
function classifyOptions(cmd: Command, forPlan = false): Command {
  const options = [
    new Option('-p, --prompt <text>', 'prompt template; {{Column Name}} inserts that column of the row'),
    new Option('--prompt-file <file>', 'read the prompt template from a file'),
    new Option('-l, --labels <list>', 'allowed labels, comma-separated; the answer is constrained to them (enum output)'),
    new Option('--labels-file <file>', 'allowed labels, one a line'),
    new Option('--schema <file>', 'JSON schema of a structured answer; each top-level property becomes an output column'),
    new Option('--answer-column <name>', 'output column of the answer (default "label" with labels, "answer" without)'),
    new Option('--system <text>', 'system instruction'),
    new Option('--system-file <file>', 'read the system instruction from a file'),
    new Option('-m, --model <id>', 'model id (default gemini-2.5-flash)'),
    new Option('--provider <name>', 'who answers: gemini (default: the Gemini API, API keys), openai (any OpenAI-compatible chat/completions server: --base-url …/v1, OPENAI_API_KEY), vertex (Vertex AI: Application Default Credentials, --project, --location)'),
    new Option('--project <id>', 'Vertex AI: the Google Cloud project (default GOOGLE_CLOUD_PROJECT)'),
    new Option('--location <name>', 'Vertex AI: the region, or global (default GOOGLE_CLOUD_LOCATION, else global)'),
    new Option('--service-tier <tier>', 'Gemini and Vertex AI: flex (half price, answers in 1–15 minutes, may be shed and retried), standard (the default), or priority (up to twice the price, faster; may be served at standard)'),
    new Option('-o, --output <file>', 'output file; the extension picks the format (.csv .tsv .jsonl .xlsx); - for CSV on stdout'),
    new Option('--job-dir <dir>', 'job directory (default <input>.gemini-batch beside the input)'),
    new Option('--keys-file <file>', 'API keys, one a line: KEY or PROJECT KEY; keys of one project share its limits'),
    new Option('--workers-per-key <n>', 'requests in flight per key at most (default: what the quota needs at the observed latency, up to a safe ceiling)'),
    new Option('--tier <tier>', "the quota project's usage tier, free|1|2|3: start from its published limits for the model, RPD included (docs/rate-limits.md); the free tier is not billed"),
    new Option('--rpm <n>', 'requests per minute of each project for this model'),
    new Option('--tpm <n>', 'input tokens per minute of each project for this model'),
    new Option('--rpd <n>', 'requests per day of each project for this model (days end at midnight Pacific for Gemini)'),
    new Option('--headroom <fraction>', 'fraction kept under the per-minute limits (default 0.01)'),
    new Option('--limit <n>', 'only the first n data rows'),
    new Option('--base-url <url>', 'API endpoint (also GOOGLE_GEMINI_BASE_URL; GOOGLE_VERTEX_BASE_URL with --provider vertex, OPENAI_BASE_URL with openai)'),
    new Option('--simulate', 'run against the built-in Gemini simulator, in-process; no key needed'),
    new Option('--simulate-config <scenario.json>', 'the simulator scenario (quotas, faults) for --simulate'),
    new Option('--timeout <s>', 'per-request timeout in seconds (default: 60, or 3× the longest recent answer, doubling after a timeout, up to 600)'),
    new Option('--max-attempts <n>', 'requests per row at most (default 8)'),
    new Option('--retry-errors', 'on resume, send rows that ended failed, blocked, invalid_label or invalid_output again'),
    new Option('--restart', "discard the job directory's results and start over"),
    new Option('--json', 'NDJSON events on stdout instead of the progress bar'),
    new Option('--header-row <n>', 'the line holding the header (files with title rows above it); default 1'),
    new Option('--encoding <name>', 'input encoding (default: detected)'),
    new Option('--delimiter <char>', 'input delimiter, or "tab" (default: detected)'),
    new Option('--quote <char>', 'input quote character (default ")'),
    new Option('--sheet <name|index>', 'the sheet of an XLSX input (default the first)'),
    new Option('--relax-column-count', 'pad short records and keep extra fields instead of refusing them'),
    new Option('--max-input-tokens <n>', "rows whose prompt is longer are not sent; they end skipped (default: the model's input limit, 1,048,576 tokens for current Gemini models)"),
    new Option('--max-output-tokens <n>', 'generationConfig.maxOutputTokens'),
    new Option('--temperature <t>', 'generationConfig.temperature (default 0)'),
    new Option('--thinking-budget <n>', "thinking budget in tokens (default: the model's smallest; 0 = off where allowed)"),
    new Option('--examples <file>', 'few-shot examples: a CSV/XLSX with the columns the prompt uses and a "label" column'),
    new Option('--max-cost <usd>', "stop sending (exit 3, resumable) before the job's projected spend passes this many US dollars: spent so far (every run's) plus each request in flight at its most"),
    new Option('--rows-per-request <k>', 'pack k rows into one request, answers joined by a row id the tool assigns: RPM and RPD use divided by about k (default 1; README "Several rows per request")'),
    new Option('--price-input <usd>', 'USD per 1,000,000 input tokens (default: the price table)'),
    new Option('--price-output <usd>', 'USD per 1,000,000 output and thinking tokens (default: the price table)'),
    new Option('--no-escape-formulas', 'keep cells that begin with = + - @ TAB CR as they are'),
    new Option('--report [file]', 'write the HTML run report at the end of the run (default <input>.report.html beside the input)'),
    new Option('--batch', "send the rows through the Gemini Batch API: half the price, answers within 24 h, outside the per-minute quotas; Ctrl-C leaves the batches running and the same command re-attaches"),
    new Option('--batch-size <rows>', 'rows per batch at most (default 10,000)'),
    new Option('--batch-poll <s>', 'seconds between two polls of a batch at most (default 300; polls start after 5 s and grow)'),
    new Option('--batch-deadline <duration>', 'a batch still PENDING this long after it was created (e.g. 6h, 90m) is cancelled and its rows sent online'),
    new Option('--batch-fallback <mode>', 'online: rows of batches that FAILED or EXPIRED are sent online instead of in a later batch'),
  ];
  for (const option of options) {
    if (forPlan && option.long === '--simulate') option.description = "plan with the built-in simulator's limits (the scenario's with --simulate-config)";
    if (forPlan && option.long === '--rows-per-request') {
      option.description = 'plan k rows a request: requests, days, time, tokens and cost at k beside one row a request (default 1, with a k suggested when RPD or RPM binds)';
    }
    cmd.addOption(forPlan && CLASSIFY_ONLY.has(option.long ?? '') ? option.hideHelp() : option);
  }
  return cmd;
}

/** Builds the program; actions set `exit.code`. */
function program(io: Io, exit: { code: number }, argv: string[], script: string | undefined): Command {
  const cmd = new Command('gemini-batch')
    .description("Classify the rows of a spreadsheet with Google's Gemini API, at the quota's full rate, with exact resume.")
    .version(TOOL_VERSION)
    .showHelpAfterError('(add --help to see the options)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();

  classifyOptions(cmd.command('classify').argument('<input>', 'CSV, TSV or XLSX file').description('classify every row; resumes a matching job automatically'))
    .exitOverride()
    .action(async (input: string, options: RawClassifyOptions) => {
      const { runClassify } = await import('./job/run-classify.js');
      exit.code = await runClassify(input, options, io, { prefix: commandPrefix(script, io.env), args: argv });
    });

  classifyOptions(cmd.command('plan').argument('<input>', 'CSV, TSV or XLSX file').description('what a classify job will take: tokens, requests, time under each quota, cost; sends nothing'), true)
    .option('--count-tokens', 'scale the estimate by one countTokens call on a sample of 20 prompts')
    .option('--output-tokens <n>', "free text: answer tokens per row (default: as long as the row's own text in the prompt)")
    .exitOverride()
    .action(async (input: string, options: RawClassifyOptions & { countTokens?: boolean; outputTokens?: string }) => {
      const { runPlan } = await import('./job/run-plan.js');
      exit.code = await runPlan(input, options, io);
    });

  cmd
    .command('status')
    .argument('<input-or-job-dir>', 'the input file or its job directory')
    .option('--job-dir <dir>', 'job directory, when not the default beside the input')
    .option('--json', 'one JSON object instead of text')
    .option('--price-input <usd>', "USD per 1,000,000 input tokens (default: the provider's price table)")
    .option('--price-output <usd>', "USD per 1,000,000 output and thinking tokens (default: the provider's price table)")
    .option('--refresh', "--batch jobs: one get per unfinished batch, to show its state now (the job's keys: --keys-file or the environment)")
    .option('--keys-file <file>', 'with --refresh: the API keys, as for classify')
    .option('--base-url <url>', 'with --refresh: the API endpoint, as for classify')
    .description('counts by status, tokens, retries, batches and what remains; no API call unless --refresh')
    .exitOverride()
    .action(async (target: string, options: import('./job/run-status.js').StatusOptions) => {
      const { runStatus } = await import('./job/run-status.js');
      exit.code = await runStatus(target, options, io);
    });

  cmd
    .command('cancel')
    .argument('<input-or-job-dir>', 'the input file or its job directory')
    .option('--job-dir <dir>', 'job directory, when not the default beside the input')
    .option('--keys-file <file>', 'the API keys, as for classify (default: the environment)')
    .option('--base-url <url>', 'the API endpoint, as for classify')
    .description("cancel the job's running Batch API batches (classify --batch); run classify again to send their rows anew")
    .exitOverride()
    .action(async (target: string, options: import('./job/run-cancel.js').CancelOptions) => {
      const { runCancel } = await import('./job/run-cancel.js');
      exit.code = await runCancel(target, options, io);
    });

  cmd
    .command('report')
    .argument('<input-or-job-dir>', 'the input file or its job directory')
    .option('-o, --output <file>', 'where to write the report (default <input>.report.html beside the input, or beside the job directory)')
    .option('--job-dir <dir>', 'job directory, when not the default beside the input')
    .option('--price-input <usd>', "USD per 1,000,000 input tokens (default: the provider's price table)")
    .option('--price-output <usd>', "USD per 1,000,000 output and thinking tokens (default: the provider's price table)")
    .description('a self-contained HTML report of the job with charts: what bound the rate, 429s, latency, rows, cost; no API call')
    .exitOverride()
    .action(async (target: string, options: { jobDir?: string; output?: string; priceInput?: string; priceOutput?: string }) => {
      const { runReport } = await import('./job/run-report.js');
      exit.code = await runReport(target, options, io);
    });

  cmd
    .command('simulate')
    .option('--port <n>', 'port on 127.0.0.1 (default 8765; 0 = any free port)')
    .option('--config <scenario.json>', 'scenario: projects, keys, quotas, faults, scripted answers')
    .option('--rpm <n>', 'requests per minute of every project and model')
    .option('--tpm <n>', 'input tokens per minute of every project and model')
    .option('--rpd <n>', 'requests per day of every project and model')
    .description('run the Gemini API simulator on 127.0.0.1 until Ctrl-C')
    .exitOverride()
    .action(async (options: { port?: string; config?: string; rpm?: string; tpm?: string; rpd?: string }) => {
      const { positiveInt, integer } = await import('./config/option-values.js');
      const { runSimulateCommand } = await import('./simulator/index.js');
      const port = integer('--port', options.port, 0) ?? 8765;
      exit.code = await runSimulateCommand(
        {
          port,
          commandPrefix: commandPrefix(script, io.env),
          ...(options.config !== undefined ? { config: options.config } : {}),
          ...optional('rpm', positiveInt('--rpm', options.rpm)),
          ...optional('tpm', positiveInt('--tpm', options.tpm)),
          ...optional('rpd', positiveInt('--rpd', options.rpd)),
        },
        io,
      );
    });
  return cmd;
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

/**
 * Runs the CLI.
 * @param argv `process.argv` (node, script, then the arguments).
 * @param io the streams written to and the environment read; the process's own by default. Tests pass fakes
 *   (test/support/run-main.ts).
 * @returns the exit code (`ExitCode` in ./errors.ts). Never throws: errors are written to `io.stderr`.
 */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const exit = { code: ExitCode.Ok as number };
  const args = argv.slice(2);
  // A closed pipe (`| head`) must not kill a job: progress lines just stop; the journal and the output file go on.
  for (const stream of [io.stdout, io.stderr]) if (stream.listenerCount?.('error') === 0) stream.on('error', () => undefined);
  try {
    await program(io, exit, args, argv[1]).parseAsync(argv);
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; every other commander error is a usage error.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    if (error instanceof GeminiBatchError) {
      io.stderr.write(`gemini-batch: ${redactSecrets(error.message)}\n`);
      return error.exitCode;
    }
    io.stderr.write(`gemini-batch: internal error: ${redactSecrets(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    return ExitCode.Internal;
  }
}
