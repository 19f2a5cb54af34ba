import { Browser as PageBrowser, type BrowserResponse } from '@open-finance-gateway/sandbox/testing';
import { recordTraffic } from './audit.js';

export type { BrowserResponse };

/** The sandbox package's test browser, every response recorded for the secret-leak audit. */
export class Browser extends PageBrowser {
  constructor() {
    super({ onResponse: recordTraffic });
  }
}
