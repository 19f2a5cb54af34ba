import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { ErrorCode, gatewayError } from '../errors.js';
import { toNameVerification } from './name-verification.mapper.js';
import { NameInput, NameVerification } from './name-verification.type.js';

const MAX_NAME_LENGTH = 200;

@Resolver()
export class NameVerificationResolver {
  /**
   * Goes straight to the platform on every call: no loader, no cache, and the names never reach a
   * log line (identity data passes through, it is not kept).
   */
  @Query(() => NameVerification, {
    description:
      'Compares a name with the names the user\u2019s banks hold (`POST /v1/verify/name`), or only with one account\u2019s holder and party when `accountId` is given.',
  })
  async verifyName(
    @Arg('input', () => NameInput) input: NameInput,
    @Ctx() context: GatewayContext,
    @Arg('accountId', () => ID, { nullable: true }) accountId?: string,
  ): Promise<NameVerification> {
    if (context.appKind === 'PERSONAL') {
      throw gatewayError(ErrorCode.FORBIDDEN, 'Name verification needs a full app; personal apps cannot use it.', {
        reason: 'PERSONAL_APP',
      });
    }
    const familyName = input.familyName.trim();
    const problems = [
      familyName.length === 0 ? 'familyName must not be empty' : undefined,
      ...(['familyName', 'givenName', 'middleName'] as const).map((key) =>
        (input[key]?.length ?? 0) > MAX_NAME_LENGTH
          ? `${key} must be at most ${MAX_NAME_LENGTH} characters`
          : undefined,
      ),
    ].filter(Boolean);
    if (problems.length > 0)
      throw gatewayError(ErrorCode.BAD_USER_INPUT, `Invalid name: ${problems.join('; ')}.`, { argumentName: 'input' });

    const result = await context.userClient.verifyName(
      {
        family_name: familyName,
        ...(input.givenName?.trim() ? { given_name: input.givenName.trim() } : {}),
        ...(input.middleName?.trim() ? { middle_name: input.middleName.trim().replaceAll(/\s+/g, ' ') } : {}),
      },
      accountId ?? undefined,
    );
    return toNameVerification(result);
  }
}
