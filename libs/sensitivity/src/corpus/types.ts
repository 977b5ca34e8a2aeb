/** One corpus text and what it is an example of (a provider, a form, a separator, a look-alike). */
export interface CorpusSample {
  kind: string;
  text: string;
}
