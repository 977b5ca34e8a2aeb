// The parser's thread. Plain JavaScript on purpose: the tree-sitter runtime loads itself with a
// dynamic import that jest's module sandbox refuses, and a thread of its own keeps a long ingest
// from stalling the process's event loop. Messages: { id, grammar, text } -> { id, definitions }.
'use strict';
const { parentPort } = require('node:worker_threads');

const DEFINITIONS = {
  typescript: ['class_declaration', 'abstract_class_declaration', 'interface_declaration', 'function_declaration', 'generator_function_declaration', 'method_definition', 'abstract_method_signature', 'enum_declaration', 'type_alias_declaration', 'internal_module', 'variable_declarator', 'public_field_definition'],
  javascript: ['class_declaration', 'function_declaration', 'generator_function_declaration', 'method_definition', 'variable_declarator', 'field_definition'],
  python: ['function_definition', 'class_definition'],
  go: ['function_declaration', 'method_declaration', 'type_spec'],
  rust: ['function_item', 'function_signature_item', 'struct_item', 'enum_item', 'trait_item', 'impl_item', 'mod_item', 'macro_definition'],
  java: ['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'method_declaration', 'constructor_declaration'],
  cpp: ['function_definition', 'class_specifier', 'struct_specifier', 'namespace_definition', 'enum_specifier'],
  'c-sharp': ['class_declaration', 'interface_declaration', 'struct_declaration', 'enum_declaration', 'record_declaration', 'method_declaration', 'constructor_declaration', 'namespace_declaration'],
  ruby: ['method', 'singleton_method', 'class', 'module'],
  php: ['function_definition', 'method_declaration', 'class_declaration', 'interface_declaration', 'trait_declaration'],
};
DEFINITIONS.tsx = DEFINITIONS.typescript;
const KINDS = Object.fromEntries(Object.entries(DEFINITIONS).map(([g, list]) => [g, new Set(list)]));
/** Values that make a variable or field a symbol of its own (`const f = () => ...`). */
const CALLABLE_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'class', 'class_expression', 'generator_function']);

const runtime = require('@vscode/tree-sitter-wasm');
const ready = runtime.Parser.init();
const languages = new Map();
let parser;

function language(grammar) {
  let loaded = languages.get(grammar);
  if (!loaded) {
    loaded = runtime.Language.load(require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${grammar}.wasm`));
    languages.set(grammar, loaded);
  }
  return loaded;
}

async function definitions(grammar, text) {
  await ready;
  const lang = await language(grammar);
  parser = parser || new runtime.Parser();
  parser.setLanguage(lang);
  const tree = parser.parse(text);
  if (!tree) return [];
  try {
    return collect(tree.rootNode, grammar);
  } finally {
    tree.delete();
  }
}

/** Walks without recursion: a generated file can nest deeper than the stack. */
function collect(root, grammar) {
  const kinds = KINDS[grammar] || new Set();
  const out = [];
  const stack = [{ node: root, scope: [] }];
  while (stack.length > 0) {
    const { node, scope } = stack.pop();
    let inner = scope;
    if (kinds.has(node.type)) {
      const name = nameOf(node, grammar);
      if (name) {
        inner = scope.concat([name]);
        out.push({ name: inner.join('.'), kind: node.type, startLine: node.startPosition.row + 1, endLine: node.endPosition.row + 1 });
      }
    }
    const children = node.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) if (children[i]) stack.push({ node: children[i], scope: inner });
  }
  return out;
}

function field(node, name) {
  const child = node.childForFieldName(name);
  return child ? child.text : undefined;
}

function nameOf(node, grammar) {
  switch (node.type) {
    case 'variable_declarator':
    case 'public_field_definition':
    case 'field_definition': {
      const value = node.childForFieldName('value');
      if (!value || !CALLABLE_VALUES.has(value.type)) return undefined;
      return field(node, 'name') || field(node, 'property');
    }
    case 'impl_item': {
      const type = field(node, 'type');
      const trait = field(node, 'trait');
      return type ? (trait ? `${type}<${trait}>` : type) : undefined;
    }
    case 'method_declaration': {
      const name = field(node, 'name');
      if (grammar !== 'go' || !name) return name;
      const receiver = (field(node, 'receiver') || '').replace(/[()*]/g, ' ').trim().split(/\s+/).pop();
      return receiver ? `${receiver}.${name}` : name;
    }
    case 'function_definition':
      return grammar === 'cpp' ? cDeclaratorName(node.childForFieldName('declarator')) : field(node, 'name');
    case 'class_specifier':
    case 'struct_specifier':
    case 'enum_specifier':
      // Only a definition (with a body) is a symbol; `struct x y;` merely uses one.
      return node.childForFieldName('body') ? field(node, 'name') : undefined;
    default:
      return field(node, 'name');
  }
}

/** `int *ns::f(int)`: the name inside C's nested declarators. */
function cDeclaratorName(declarator) {
  let node = declarator;
  for (let depth = 0; node && depth < 8; depth++) {
    if (['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name'].includes(node.type)) return node.text.replace(/::/g, '.');
    node = node.childForFieldName('declarator');
  }
  return undefined;
}

parentPort.on('message', ({ id, grammar, text }) => {
  definitions(grammar, text).then(
    (defs) => parentPort.postMessage({ id, definitions: defs }),
    (error) => parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) }),
  );
});
