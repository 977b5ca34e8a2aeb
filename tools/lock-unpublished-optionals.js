#!/usr/bin/env node
// chdb 3.4.0 declares optional engine packages for darwin and linux-arm64 that were never
// published (the registry answers 404), so `npm install` cannot write them into
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds lock entries
// restricted to their own platforms: npm skips them everywhere else without fetching.
// Run it after any `npm install` that rewrites the lock.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const chdb = lock.packages['node_modules/chdb'];
if (!chdb) throw new Error('chdb is not in package-lock.json');
const platforms = {
  '@chdb/lib-darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  '@chdb/lib-darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  '@chdb/lib-linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'] },
};
let added = 0;
for (const [name, version] of Object.entries(chdb.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = platforms[name];
  if (lock.packages[key] || !platform) continue;
  lock.packages[key] = { version, cpu: platform.cpu, license: 'Apache-2.0', optional: true, os: platform.os };
  added += 1;
}
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(added ? `added ${added} platform-restricted lock entries` : 'lock already complete');
