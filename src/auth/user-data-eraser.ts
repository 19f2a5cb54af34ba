import type { Logger } from '@open-finance-gateway/common/logger';

export type UserDataDeleter = (userId: string) => Promise<void>;

/**
 * Everything the gateway holds about a user registers a deleter here. Revocation (in the app, by
 * webhook, or a 403 from the platform) and account deletion call `forget`, so data no longer
 * needed is deleted in one place, as the accreditation rules require.
 */
export class UserDataEraser {
  private readonly deleters = new Map<string, UserDataDeleter>();

  constructor(
    private readonly logger: Logger,
    /** Told after each `forget`, with the stores that failed. */
    private readonly onForgotten?: (userId: string, failures: string[]) => void,
  ) {}

  register(name: string, deleter: UserDataDeleter): void {
    this.deleters.set(name, deleter);
  }

  /** Runs every deleter; one failing does not stop the others, and the failure is reported. */
  async forget(userId: string): Promise<void> {
    const failures: string[] = [];
    for (const [name, deleter] of this.deleters) {
      try {
        await deleter(userId);
      } catch (error) {
        failures.push(name);
        this.logger.error({ err: error, userId, store: name }, 'deleting user data failed');
      }
    }
    this.logger.info({ userId, stores: [...this.deleters.keys()], failures }, 'user data deleted');
    this.onForgotten?.(userId, failures);
    if (failures.length > 0) throw new Error(`could not delete user data from ${failures.join(', ')}`);
  }
}
