import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Where a test goes (CONTRIBUTING.md, "Where a test goes"): a test of `src/<area>/...` lives in
 * `test/<area>/...`, its sub-folders named as in src; suites that cross areas have folders of
 * their own; shared set-ups are in test/support. The sandbox's tests mirror sandbox/src the same way.
 */
const CROSS_CUTTING = ['audit', 'browser', 'faults', 'hardening', 'journeys', 'project'];
/** Folders that hold no tests: helpers, the GraphQL documents codegen reads, and its (ignored) output. */
const NO_TESTS = ['support', 'operations', '__generated__'];
const TEST_FILE = /\.(test|journey|suite)\.ts$/;

/** Every file under `root`, as paths relative to it with `/` separators. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split('\\').join('/'))
    .filter((path) => statSync(join(root, path)).isFile());
}

/** The folders under `root`, recursively, as relative paths. */
function foldersUnder(root: string): Set<string> {
  return new Set(
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .map((path) => path.split('\\').join('/'))
      .filter((path) => statSync(join(root, path)).isDirectory()),
  );
}

/** The names of the folders directly inside `folder`. */
function roomsBelow(folder: string, folders: Set<string>): string[] {
  return [...folders]
    .filter((path) => path.startsWith(`${folder}/`))
    .map((path) => path.slice(folder.length + 1))
    .filter((sub) => !sub.includes('/'));
}

/**
 * What is out of place among `files` (paths relative to test/), given the folders of src/: one
 * line per file, naming it and the rule it breaks.
 */
function misplacedTests(files: string[], srcFolders: Set<string>): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const parts = file.split('/');
    const [area] = parts;
    const folder = parts.slice(0, -1).join('/');
    if (parts.length === 1) problems.push(`test/${file}: nothing lives at the top of test/; put it in test/<area>/`);
    else if (NO_TESTS.includes(area!)) {
      if (TEST_FILE.test(file)) problems.push(`test/${file}: test/${area}/ holds no tests; put it in test/<area>/`);
    } else if (CROSS_CUTTING.includes(area!)) continue;
    else if (!srcFolders.has(area!))
      problems.push(`test/${file}: test/${area}/ names no src/ folder and no cross-cutting folder`);
    else if (!srcFolders.has(folder)) problems.push(`test/${file}: src/${folder}/ does not exist`);
    else if (!file.endsWith('.test.ts'))
      problems.push(`test/${file}: only *.test.ts beside an area's tests; shared set-ups go in test/support/`);
    else {
      // Named for a room one floor down (test/server/websocket-x.test.ts): it belongs in that room.
      const name = parts.at(-1)!;
      const room = roomsBelow(folder, srcFolders).find(
        (sub) => name.startsWith(`${sub}.`) || name.startsWith(`${sub}-`),
      );
      if (room)
        problems.push(
          `test/${file}: src/${folder}/${room}/ has a folder of its own; put it in test/${folder}/${room}/`,
        );
    }
  }
  return problems;
}

/** The same for the sandbox: its test folders name sandbox/src folders (or its support). */
function misplacedSandboxTests(files: string[], srcFolders: Set<string>): string[] {
  return files
    .filter((file) => file.includes('/'))
    .map((file) => file.slice(0, file.lastIndexOf('/')))
    .filter((folder) => folder !== 'support' && !srcFolders.has(folder))
    .map((folder) => `sandbox/test/${folder}/: sandbox/src/${folder}/ does not exist`);
}

describe('the test layout', () => {
  it('puts every gateway test in test/<area>/ mirroring src/, or in a cross-cutting folder', () => {
    expect(misplacedTests(filesUnder('test'), foldersUnder('src'))).toEqual([]);
  });

  it('puts every sandbox test in sandbox/test/ mirroring sandbox/src/', () => {
    expect(misplacedSandboxTests(filesUnder('sandbox/test'), foldersUnder('sandbox/src'))).toEqual([]);
  });

  it('names each misplaced file (the check itself can fail)', () => {
    const src = new Set(['auth', 'server', 'server/websocket']);
    expect(
      misplacedTests(
        [
          'sign-in.test.ts',
          'stores/session-store.test.ts',
          'support/helper.test.ts',
          'server/http/cors.test.ts',
          'auth/helpers.ts',
          'auth/sign-in.test.ts',
          'server/websocket/heartbeat.test.ts',
          'server/websocket-heartbeat.test.ts',
          'faults/redis-failover-faults.suite.ts',
          'support/gateway.ts',
        ],
        src,
      ),
    ).toEqual([
      'test/sign-in.test.ts: nothing lives at the top of test/; put it in test/<area>/',
      'test/stores/session-store.test.ts: test/stores/ names no src/ folder and no cross-cutting folder',
      'test/support/helper.test.ts: test/support/ holds no tests; put it in test/<area>/',
      'test/server/http/cors.test.ts: src/server/http/ does not exist',
      "test/auth/helpers.ts: only *.test.ts beside an area's tests; shared set-ups go in test/support/",
      'test/server/websocket-heartbeat.test.ts: src/server/websocket/ has a folder of its own; put it in test/server/websocket/',
    ]);
    expect(misplacedSandboxTests(['top.test.ts', 'stores/x.test.ts', 'support/sdk.ts'], new Set(['core']))).toEqual([
      'sandbox/test/stores/: sandbox/src/stores/ does not exist',
    ]);
  });
});
