#!/usr/bin/env node
// Adds lock entries for platform-specific optional packages that this machine's registry does not
// serve (npm install skips them; npm ci then reports the lock as out of sync).
const fs = require('fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const platforms = {
  '@chdb/lib-darwin-arm64': [['darwin'], ['arm64']],
  '@chdb/lib-darwin-x64': [['darwin'], ['x64']],
  '@chdb/lib-linux-arm64-gnu': [['linux'], ['arm64']],
  '@msgpackr-extract/msgpackr-extract-darwin-arm64': [['darwin'], ['arm64']],
  '@msgpackr-extract/msgpackr-extract-darwin-x64': [['darwin'], ['x64']],
  '@msgpackr-extract/msgpackr-extract-linux-arm': [['linux'], ['arm']],
  '@msgpackr-extract/msgpackr-extract-linux-arm64': [['linux'], ['arm64']],
  '@msgpackr-extract/msgpackr-extract-win32-x64': [['win32'], ['x64']],
};
let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || !platforms[dep]) continue;
    const [os, cpu] = platforms[dep];
    lock.packages[key] = { version, cpu, optional: true, os };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
if (added) console.log(`package-lock.json: added ${added} platform-specific optional package entries`);
