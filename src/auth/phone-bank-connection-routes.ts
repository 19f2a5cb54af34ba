import { sendHtml } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { fail } from './auth-route-support.js';
import { platformAuthorizeUrl, type BankConnectionRoutesOptions } from './bank-connection-routes.js';
import { consumerInfoPage } from './consumer-info.js';
import { appReturnUrl, type PhoneBankConnection } from './phone-bank-connection.js';

export type PhoneBankConnectionRouteOptions = Pick<
  BankConnectionRoutesOptions,
  'support' | 'states' | 'consumerInfo' | 'authorizeUrl' | 'appToken' | 'publicUrl'
> & {
  /** Connection URLs handed to native apps (`startBankConnection`). */
  phone: PhoneBankConnection;
};

/**
 * `/auth/phone/connect`: a native app's connection URL, opened in the system browser with no
 * cookie of ours. The grant is taken (once), the browser is bound from here on, and the consumer
 * information page leads straight to the platform's consent for the user the grant names; its
 * "Not now" returns to the app with `refused`. The platform's callback (bank-connection-routes.ts)
 * sends the browser back to the app.
 */
export function registerPhoneBankConnectionRoute(
  router: Router<ScopedRouteRequest>,
  options: PhoneBankConnectionRouteOptions,
): void {
  router.on('GET', '/auth/phone/connect', async ({ req, res, url, scope }) => {
    const redeemed = await options.phone.redeem(url.searchParams.get('grant'));
    if ('refused' in redeemed) {
      scope.log.warn({ reason: redeemed.refused }, 'connection URL refused');
      const expired = redeemed.refused === 'CONNECTION_URL_EXPIRED';
      return fail(
        res,
        expired ? 410 : 400,
        redeemed.refused,
        expired
          ? 'This connection link has expired. Go back to the app and start connecting again.'
          : 'This connection link is not valid or has been used already. Go back to the app and start connecting again.',
      );
    }
    const binding = options.support.bindBrowser(req, res);
    const state = await options.states.issue(binding, '/', {
      flow: 'platform',
      userId: redeemed.userId,
      ...redeemed.phone,
    });
    const consent = platformAuthorizeUrl(options, `${options.publicUrl()}/auth/callback`, state);
    sendHtml(res, 200, consumerInfoPage(options.consumerInfo, consent, appReturnUrl(redeemed.phone, 'refused')));
  });
}
