import { int, setting, type SettingGroup } from '../setting-types.js';

export const PAYMENT_SETTINGS = {
  title: 'Payments',
  settings: [
    setting({
      name: 'PAYMENT_DEDUPE_WINDOW_SECONDS',
      type: int(10, 86_400),
      default: 600,
      usedBy:
        '`createPayment`, `createTransfer` ([never paid twice](../guides/payments-and-transfers.md#never-paid-twice-never-a-false-failure))',
      description:
        'Without a client `idempotencyKey`, the same input by the same user within this window reuses one idempotency key, so a retry or double submit replays the first creation instead of paying twice.',
      envNote: 'same payment input without a client key within this window: one payment',
    }),
  ],
} as const satisfies SettingGroup;
