/**
 * Drivers for tests that walk the sandbox's pages as a person would: a cookie-keeping browser, the
 * consent page and the identity provider's sign-in. They live here, beside the pages they read, so
 * a change to a page changes its driver in the same package. For tests only (import
 * `@open-finance-gateway/sandbox/testing`).
 */
export { Browser, type BrowserOptions, type BrowserResponse, type ObservedResponse } from './browser.js';
export { approveConsent, signInAtProvider } from './page-drivers.js';
export { forgeJwt } from './token-forge.js';
