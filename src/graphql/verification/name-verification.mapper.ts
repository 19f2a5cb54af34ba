import type { PlatformNameVerification } from '../../upstream/platform-types.js';
import {
  NameMatchResult,
  NameSourceType,
  type HolderNameSource,
  type NameVerification,
  type PartyNameSource,
} from './name-verification.type.js';

const optionalString = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** Platform result to schema result; sources of a type the gateway does not know are dropped. */
export function toNameVerification(result: PlatformNameVerification): NameVerification {
  const sources: Array<HolderNameSource | PartyNameSource> = [];
  for (const source of result.sources) {
    const v = source.verification ?? {};
    const common = {
      matchResult:
        source.match_result === NameMatchResult.MATCH ? NameMatchResult.MATCH : NameMatchResult.PARTIAL_MATCH,
      verification: {
        familyName: v.family_name === true,
        givenName: v.given_name === true,
        givenInitial: v.given_initial === true,
        middleName: v.middle_name === true,
        middleInitial: v.middle_initial === true,
      },
    };
    const meta = source.meta ?? {};
    if (source.type === NameSourceType.HOLDER_NAME && typeof meta._id === 'string') {
      sources.push({
        ...common,
        type: NameSourceType.HOLDER_NAME,
        accountId: meta._id,
        accountName: optionalString(meta.name),
        formattedAccount: optionalString(meta.formatted_account),
        holder: optionalString(meta.holder) ?? '',
        hasUnlistedHolders: typeof meta.has_unlisted_holders === 'boolean' ? meta.has_unlisted_holders : undefined,
      });
    } else if (source.type === NameSourceType.PARTY_NAME && typeof meta.value === 'string') {
      const bankIds = Array.isArray(meta.sources)
        ? meta.sources.filter((id): id is string => typeof id === 'string')
        : [];
      sources.push({ ...common, type: NameSourceType.PARTY_NAME, value: meta.value, bankIds, connectionIds: bankIds });
    }
  }
  return {
    sources,
    name: {
      familyName: result.name.family_name,
      givenName: result.name.given_name,
      middleName: result.name.middle_name,
    },
  };
}
