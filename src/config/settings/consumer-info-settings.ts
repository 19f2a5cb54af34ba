import { list, pastDate, setting, text, url, type SettingGroup } from '../setting-types.js';
import { DEFAULT_APP_NAME, parseReturnUris } from './setting-forms.js';

export const CONSUMER_INFO_SETTINGS = {
  title: 'Consumer information and accreditation',
  settings: [
    setting({
      name: 'APP_RETURN_URIS',
      type: list(
        'comma-separated URIs (`https://app.example.nz/connected`, `nz.example.app:/connected`)',
        parseReturnUris,
      ),
      default: [],
      defaultText:
        "none (no native app can connect a bank); on the embedded sandbox, the sandbox's native app's `http://127.0.0.1/connected` (any port) and `nz.sandbox.native:/connected`",
      usedBy:
        '`startBankConnection` ([native apps](../guides/subscriptions-over-http-and-phones.md#the-bank-connection-from-a-phone))',
      description:
        "Where the browser returns to a native app after connecting a bank from a phone: claimed https links or custom schemes, matched exactly; `http://127.0.0.1` and `http://[::1]` URIs match on any port (RFC 8252). The return carries only `outcome` and the app's `state`.",
      envNote: "native apps' return URIs after connecting a bank (comma-separated)",
    }),
    setting({
      name: 'APP_NAME',
      type: text(),
      default: DEFAULT_APP_NAME,
      usedBy: 'the consumer information page, the embedded sandbox, the readiness report',
      description:
        "The app's name on the consumer information page (its heading and header) and, on the embedded sandbox, on the sandbox's sign-in and consent pages, as the app registered with the platform.",
      envNote: 'on the consumer information page',
    }),
    setting({
      name: 'PLATFORM_NAME',
      type: text(),
      defaultText:
        '`Akahu` with `PLATFORM_HEADER_PREFIX=X-Akahu`, else `the open finance platform` (`the platform sandbox` on the sandbox)',
      usedBy: 'the consumer information page',
      description: "The platform's name on the consumer information page.",
      envNote: 'default: Akahu with X-Akahu, else "the open finance platform"',
    }),
    setting({
      name: 'CONSUMER_INFO_TEMPLATE',
      type: text(),
      defaultText: 'none (the default text)',
      bounds: 'a readable, non-empty file; read at start',
      usedBy: 'the consumer information page',
      description:
        'A file with your own body for the consumer information page (HTML; `{{appName}}`, `{{platformName}}` (`{{PlatformName}}` to start a sentence), `{{privacyNoticeUrl}}`, `{{paymentsHeading}}` and `{{paymentsItem}}` are filled in). A missing or empty file stops the gateway.',
      example: './consumer-info.html',
      envNote: 'your own text for that page (HTML with {{appName}} etc.)',
    }),
    setting({
      name: 'PRIVACY_NOTICE_URL',
      type: url(),
      bounds: 'an https URL',
      usedBy: 'the consumer information page, the readiness report',
      description: "The app's privacy notice, linked from the consumer information page.",
      example: 'https://example.co.nz/privacy',
      envNote: 'linked from that page; checked by npm run readiness',
    }),
    setting({
      name: 'PENTEST_DATE',
      type: pastDate(),
      usedBy: 'the readiness report ([accreditation readiness](../operations/accreditation-readiness.md))',
      description:
        'Date of the last independent penetration test; the readiness report fails when it is over 12 months old.',
      example: '2026-06-30',
      envNote: 'last independent penetration test; readiness fails after 12 months',
    }),
  ],
} as const satisfies SettingGroup;
