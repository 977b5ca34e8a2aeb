#!/usr/bin/env node
// Rewrites the README's configuration table from ConfigVariables (libs/platform), so the table
// and the config parser never disagree. Run after `npm run build`; a unit test checks the result.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { ConfigVariables } = require(join(__dirname, '..', 'dist', 'libs', 'platform', 'src', 'config', 'loom.config.js'));

const path = join(__dirname, '..', 'README.md');
const readme = readFileSync(path, 'utf8');
const start = readme.indexOf('| variable | default | meaning |');
const end = readme.indexOf('\n\n', start);
if (start < 0 || end < 0) throw new Error('the README has no configuration table to replace');
const cell = (text) => text.replace(/\|/g, '\\|');
const table = ['| variable | default | meaning |', '|---|---|---|', ...ConfigVariables.map((v) => `| \`${v.name}\` | ${cell(v.default)} | ${cell(v.meaning)} |`)].join('\n');
writeFileSync(path, readme.slice(0, start) + table + readme.slice(end));
process.stdout.write(`README configuration table: ${ConfigVariables.length} variables\n`);
