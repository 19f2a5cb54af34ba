import { describe, expect, it } from 'vitest';
import { startGateway } from '../../support/gateway.js';

describe('the metrics port listens where METRICS_HOST says', () => {
  it('binds the token-free metrics listener to loopback when HOST and METRICS_HOST are unset', async () => {
    // HOST left blank (unset): the main port listens on every interface, /metrics must not.
    const gateway = await startGateway({ HOST: '', METRICS_PORT: '0' });
    expect(gateway.app.metricsAddress?.address).toBe('127.0.0.1');
    expect((await fetch(gateway.app.metricsUrl!)).status).toBe(200);
  });

  it('binds it to every interface only when METRICS_HOST=0.0.0.0 says so', async () => {
    const gateway = await startGateway({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '0' });
    expect(gateway.app.metricsAddress?.address).toBe('0.0.0.0');
    expect((await fetch(gateway.app.metricsUrl!)).status).toBe(200);
  });
});
