import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { SETTINGS } from '../../src/config/settings.js';
import { startGateway } from '../support/gateway.js';

/** Each renamed setting: its old name, its new name, a valid value and where the value lands. */
const RENAMED = [
  {
    old: 'MAX_CONNECTIONS',
    now: 'HTTP_MAX_TCP_CONNECTIONS',
    value: '77',
    read: (c: Config) => c.http.maxTcpConnections,
  },
  {
    old: 'UPSTREAM_MAX_CONNECTIONS',
    now: 'UPSTREAM_MAX_TCP_CONNECTIONS',
    value: '7',
    read: (c: Config) => c.upstreamMaxTcpConnections,
  },
  {
    old: 'CONNECTION_IDLE_DAYS',
    now: 'BANK_CONNECTION_IDLE_DAYS',
    value: '30',
    read: (c: Config) => c.bankConnectionIdleMs,
  },
  {
    old: 'WS_CONNECTION_INIT_TIMEOUT_MS',
    now: 'WS_HANDSHAKE_TIMEOUT_MS',
    value: '700',
    read: (c: Config) => c.wsHandshakeTimeoutMs,
  },
];

type Config = ReturnType<typeof loadConfig>;

describe('renamed settings', () => {
  it('are declared with their former names, and only these', () => {
    const declared = SETTINGS.flatMap((entry) => (entry.formerly ? [[entry.formerly, entry.name]] : []));
    expect(declared).toEqual(expect.arrayContaining(RENAMED.map(({ old, now }) => [old, now])));
    expect(declared).toHaveLength(RENAMED.length);
  });

  it.each(RENAMED)('still reads $old as $now, and reports it as deprecated', ({ old, now, value, read }) => {
    const byOldName = loadConfig({ [old]: value });
    expect(read(byOldName)).toEqual(read(loadConfig({ [now]: value })));
    expect(read(byOldName)).not.toEqual(read(loadConfig({})));
    expect(byOldName.deprecatedSettings).toEqual([{ name: old, replacedBy: now }]);
    expect(loadConfig({ [now]: value }).deprecatedSettings).toBeUndefined();
  });

  it('takes the new name when both are set', () => {
    const config = loadConfig({ MAX_CONNECTIONS: '10', HTTP_MAX_TCP_CONNECTIONS: '20' });
    expect(config.http.maxTcpConnections).toBe(20);
    expect(config.deprecatedSettings).toBeUndefined();
  });

  it('names a bad value by the name the operator set', () => {
    let error: unknown;
    try {
      loadConfig({ MAX_CONNECTIONS: 'many', WS_HANDSHAKE_TIMEOUT_MS: '5' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.key)).toEqual([
      'MAX_CONNECTIONS',
      'WS_HANDSHAKE_TIMEOUT_MS',
    ]);
  });

  it('are warned about at start, each naming its replacement', async () => {
    const gateway = await startGateway({ CONNECTION_IDLE_DAYS: '30', UPSTREAM_MAX_CONNECTIONS: '8' });
    const warnings = gateway.logs
      .filter((line) => line.level === 40 && typeof line.setting === 'string')
      .map(({ setting, replacedBy }) => ({ setting, replacedBy }));
    expect(warnings).toEqual([
      { setting: 'UPSTREAM_MAX_CONNECTIONS', replacedBy: 'UPSTREAM_MAX_TCP_CONNECTIONS' },
      { setting: 'CONNECTION_IDLE_DAYS', replacedBy: 'BANK_CONNECTION_IDLE_DAYS' },
    ]);
  });

  it('are listed in the settings reference with their new names', () => {
    const reference = readFileSync('docs/reference/settings.md', 'utf8');
    for (const { old, now } of RENAMED) {
      expect(reference).toContain(`| \`${old}\` | [\`${now}\`](#${now.toLowerCase()}) |`);
      expect(reference).toContain(`- **Formerly:** \`${old}\`, deprecated`);
    }
  });
});
