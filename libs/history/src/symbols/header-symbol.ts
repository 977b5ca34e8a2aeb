/**
 * The symbol git's hunk header names, for files no grammar reads: the last identifier before an
 * opening parenthesis (`static int parse_line(char *s)` -> parse_line), else the name after a
 * definition keyword (`class Foo:` -> Foo). Undefined when the header names nothing.
 */
export function headerSymbol(header: string): string | undefined {
  const text = header.trim();
  if (text === '') return undefined;
  const call = /([A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*)\s*\(/.exec(text);
  if (call?.[1] && !KEYWORDS.has(call[1])) return call[1].replace(/::/g, '.');
  const keyword = /\b(?:class|struct|interface|enum|trait|impl|module|mod|def|func|fn|function|sub|namespace|type)\s+([A-Za-z_$][\w$]*)/.exec(text);
  return keyword?.[1];
}

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'sizeof', 'elif', 'with']);

/** The last part of a qualified name: `query` of `Client.query`; what a symbol is looked up by. */
export function leafOf(symbol: string): string {
  const parts = symbol.split(/\.|::|#/);
  return parts[parts.length - 1] || symbol;
}
