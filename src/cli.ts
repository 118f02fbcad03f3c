/** Placeholder until the commander program lands. */
export async function main(_argv: string[]): Promise<number> {
  return 0;
}
