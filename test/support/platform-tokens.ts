import type { TestGateway } from './gateway.js';

/** The platform's view of a user token: 200 while live, 403 once revoked (asked of the sandbox directly). */
export async function platformStatus(gateway: Pick<TestGateway, 'sandbox'>, token: string): Promise<number> {
  const response = await fetch(`${gateway.sandbox.coreUrl}/v1/me`, {
    headers: { authorization: `Bearer ${token}`, 'x-service-id': gateway.sandbox.credentials.appToken },
  });
  return response.status;
}
