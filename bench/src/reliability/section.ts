/** One part of docs/reliability.md: `npm run reliability` runs every section and writes its markdown. */
export interface ReliabilityOptions {
  /** The full run (`npm run reliability`); false for a quick run. */
  long: boolean;
  /** Progress for the person waiting (stderr). */
  log: (line: string) => void;
}
export interface ReliabilitySection {
  id: string;
  title: string;
  /** What the section proves, in one or two sentences. */
  proves: string;
  /** Where it stands in the document, lowest first. */
  order: number;
  run(opts: ReliabilityOptions): Promise<string>;
}
