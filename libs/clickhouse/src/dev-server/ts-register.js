'use strict';
// Test and development tooling, never a production path.
//
// Lets plain `node` run this workspace's TypeScript without a build step, so tests can start a
// server in a child process (chDB allows one data directory per process, and a jest worker may
// already hold one). Each .ts file is transpiled on require with TypeScript's transpileModule —
// no type checking; `npx tsc --noEmit` does that — and the `@loom/*` path aliases from
// tsconfig.base.json are resolved the way jest's moduleNameMapper resolves them.
//
// Usage:
//   node -r <this file> path/to/entry.ts [args...]
//   node <this file> path/to/entry.ts [args...]
//   require('<this file>')   // from a .js entry, before requiring .ts files
//
// Transpiled output is cached on disk (keyed by source text, file path and compiler version) so
// that only the first start of a child process pays for loading the TypeScript compiler. Set
// LOOM_TS_REGISTER_CACHE=0 to disable the cache, or LOOM_TS_REGISTER_CACHE=<dir> to move it.

const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const Module = require('module');

const LOADER_VERSION = '1';
const REGISTERED = Symbol.for('loom.ts-register');

function findWorkspaceRoot(start) {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'tsconfig.base.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const workspaceRoot = findWorkspaceRoot(__dirname);

function readPathAliases() {
  if (workspaceRoot === undefined) return [];
  try {
    const base = JSON.parse(fs.readFileSync(path.join(workspaceRoot, 'tsconfig.base.json'), 'utf8'));
    const paths = (base.compilerOptions && base.compilerOptions.paths) || {};
    return Object.entries(paths).map(([alias, targets]) => ({
      alias,
      wildcard: alias.endsWith('/*'),
      prefix: alias.endsWith('/*') ? alias.slice(0, -1) : alias,
      targets: targets.map((t) => path.resolve(workspaceRoot, t)),
    }));
  } catch {
    return [];
  }
}

let tsModule;
function typescript() {
  // Loaded lazily: on a warm cache no file needs compiling and the compiler is never loaded.
  if (tsModule === undefined) tsModule = require(require.resolve('typescript', { paths: [workspaceRoot || __dirname] }));
  return tsModule;
}

function tsVersion() {
  try {
    const pkg = require.resolve('typescript/package.json', { paths: [workspaceRoot || __dirname] });
    return JSON.parse(fs.readFileSync(pkg, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function cacheDir() {
  const setting = process.env.LOOM_TS_REGISTER_CACHE;
  if (setting === '0' || setting === 'false') return undefined;
  if (setting) return setting;
  let user = 'user';
  try {
    user = String(os.userInfo().uid);
  } catch {
    /* keep the default */
  }
  return path.join(os.tmpdir(), `loom-ts-register-${user}`);
}

function register() {
  if (globalThis[REGISTERED]) return;
  globalThis[REGISTERED] = true;

  // Inline source maps below are only useful if node applies them to stack traces.
  if (typeof process.setSourceMapsEnabled === 'function') process.setSourceMapsEnabled(true);

  const aliases = readPathAliases();
  const originalResolve = Module._resolveFilename;
  Module._resolveFilename = function resolveWithAliases(request, parent, isMain, options) {
    for (const a of aliases) {
      const matches = a.wildcard ? request.startsWith(a.prefix) : request === a.alias;
      if (!matches) continue;
      const rest = a.wildcard ? request.slice(a.prefix.length) : '';
      for (const target of a.targets) {
        const candidate = a.wildcard ? target.replace('*', rest) : target;
        try {
          return originalResolve.call(this, candidate, parent, isMain, options);
        } catch {
          /* try the next target */
        }
      }
    }
    return originalResolve.call(this, request, parent, isMain, options);
  };

  const compilerOptionsKey = `${LOADER_VERSION}:${tsVersion()}`;
  const dir = cacheDir();
  if (dir !== undefined) {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch {
      /* caching is an optimisation only */
    }
  }

  function compile(source, filename) {
    const key = crypto.createHash('sha256').update(compilerOptionsKey).update('\0').update(filename).update('\0').update(source).digest('hex');
    const cached = dir === undefined ? undefined : path.join(dir, `${key}.js`);
    if (cached !== undefined) {
      try {
        return fs.readFileSync(cached, 'utf8');
      } catch {
        /* miss */
      }
    }
    const ts = typescript();
    const out = ts.transpileModule(source, {
      fileName: filename,
      reportDiagnostics: false,
      compilerOptions: {
        // Mirrors tsconfig.base.json where it affects emitted code; CommonJS because that is what
        // `module: nodenext` produces for this (non-"type": "module") workspace.
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        resolveJsonModule: true,
        inlineSourceMap: true,
        inlineSources: true,
      },
    }).outputText;
    if (cached !== undefined) {
      // Write-then-rename so a concurrently starting process never reads half a file.
      const tmp = `${cached}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, out);
        fs.renameSync(tmp, cached);
      } catch {
        try {
          fs.unlinkSync(tmp);
        } catch {
          /* ignore */
        }
      }
    }
    return out;
  }

  const loadTs = function loadTs(module, filename) {
    if (filename.includes(`${path.sep}node_modules${path.sep}`) || filename.endsWith('.d.ts')) {
      throw new Error(`ts-register: refusing to compile ${filename}`);
    }
    const source = fs.readFileSync(filename, 'utf8');
    module._compile(compile(source, filename), filename);
  };
  Module._extensions['.ts'] = loadTs;
}

register();

module.exports = { register, workspaceRoot };

if (require.main === module) {
  // `node ts-register.js entry.ts args...`: run entry.ts as if it were the main module.
  const entry = process.argv[2];
  if (!entry) {
    process.stderr.write('usage: node ts-register.js <entry.ts> [args...]\n');
    process.exit(2);
  }
  const resolved = path.resolve(entry);
  process.argv.splice(1, 2, resolved);
  Module.runMain(resolved);
}
