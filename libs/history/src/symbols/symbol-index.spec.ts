import { SymbolIndex, symbolsTouched } from './symbol-index';

const index = new SymbolIndex();
afterAll(() => index.close());
const names = async (path: string, text: string): Promise<string[]> => (await index.definitions(path, text)).map((d) => d.name);

describe('SymbolIndex [issue 13: symbols from shipped grammars] PRHIST-03', () => {
  it('names TypeScript classes, methods, arrow-function fields and consts, qualified by their class', async () => {
    const ts = 'export class Client {\n  query(x: number) {\n    return x + 1;\n  }\n  close = () => {\n    return 2;\n  };\n}\nexport const helper = (a: string) => a;\nfunction plain() {}\nconst notASymbol = 3;\n';
    expect(await names('src/client.ts', ts)).toEqual(['Client', 'Client.query', 'Client.close', 'helper', 'plain']);
  });

  it('reads Python, Go, Rust, Java and C/C++', async () => {
    expect(await names('a.py', 'class A:\n  def f(self):\n    pass\ndef g():\n  pass\n')).toEqual(['A', 'A.f', 'g']);
    expect(await names('a.go', 'package x\nfunc (c *Client) Do() {}\nfunc F() {}\ntype T struct{}\n')).toEqual(['Client.Do', 'F', 'T']);
    expect(await names('a.rs', 'impl Foo { fn bar(&self) {} }\nfn baz() {}\n')).toEqual(['Foo', 'Foo.bar', 'baz']);
    expect(await names('A.java', 'class A { void f() {} A() {} }\n')).toEqual(['A', 'A.f', 'A.A']);
    expect(await names('a.c', 'int main(int c) { return 0; }\nstruct S { int x; };\nstruct S s;\n')).toEqual(['main', 'S']);
    expect(await names('a.cpp', 'namespace ns { int Widget::draw() const { return 1; } }\n')).toEqual(['ns', 'ns.Widget.draw']);
  });

  it('has no symbols for files without a grammar', async () => {
    expect(index.supports('README.md')).toBe(false);
    expect(await names('README.md', '# hi')).toEqual([]);
  });

  it('a change inside a method touches the method, not its class; one across two methods touches both', async () => {
    const ts = 'class C {\n  a() {\n    return 1;\n  }\n  b() {\n    return 2;\n  }\n}\n';
    const defs = await index.definitions('c.ts', ts);
    expect(symbolsTouched(defs, 3, 3).map((d) => d.name)).toEqual(['C.a']);
    expect(symbolsTouched(defs, 3, 6).map((d) => d.name).sort()).toEqual(['C.a', 'C.b']);
    expect(symbolsTouched(defs, 1, 1).map((d) => d.name)).toEqual(['C']);
  });
});
