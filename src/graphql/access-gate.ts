import { defaultFieldResolver, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { AccessState } from './context.js';
import { ErrorCode, gatewayError } from './errors.js';

/**
 * What a root field needs, beyond a live session:
 * - `session`: nothing more (whether the user is connected, the link to connect);
 * - `identity`: multi-factor as the policy demands, no bank connection (enrichment carries no
 *   user data; deleting the app account must work for a user who never connected);
 * - `platform`: multi-factor and a bank connection. Every field not listed below.
 */
export type FieldAccess = 'session' | 'identity' | 'platform';

/** The exceptions, by `Type.field`. Default-deny: a new root field is platform-connected unless listed. */
const ROOT_FIELD_ACCESS: Readonly<Record<string, FieldAccess>> = {
  'Query.bankConnection': 'session',
  'Query.connection': 'session',
  'Mutation.connectBank': 'session',
  'Mutation.startBankConnection': 'identity',
  // Seeing and ending one's own sign-ins never waits on a second factor or a bank connection.
  'Query.devices': 'session',
  'Mutation.endDevice': 'session',
  'Mutation.signOutEverywhere': 'session',
  'Query.enrich': 'identity',
  'Mutation.deleteMyAccount': 'identity',
};

export function accessOf(typeName: string, fieldName: string): FieldAccess {
  return ROOT_FIELD_ACCESS[`${typeName}.${fieldName}`] ?? 'platform';
}

/**
 * The accreditation rules' multi-factor requirement for the platform-connected functionality:
 * under `MFA_POLICY=required` a session whose sign-in had no accepted second factor reaches no
 * such field (`MFA_REQUIRED`), and none reaches the user's bank data without a connection
 * (`NOT_CONNECTED`). MFA freshness is checked where money moves (the auth checker), not here:
 * the rules renew MFA before payments, not before reads.
 */
export function checkFieldAccess(access: AccessState, needed: FieldAccess): void {
  if (needed === 'session') return;
  if (access.policy === 'required' && access.mfa === 'none')
    throw gatewayError(
      ErrorCode.MFA_REQUIRED,
      'This needs a sign-in with a second factor (authenticator app, SMS code or security key). Sign in again.',
      reauthentication(access, 'signIn'),
    );
  if (needed === 'platform' && !access.connected)
    throw gatewayError(ErrorCode.NOT_CONNECTED, 'Connect your bank first.', { connectUrl: access.links.connectUrl });
}

/**
 * How the client authenticates again: a browser through the gateway's routes (`signInUrl`,
 * `stepUpUrl`); a client with an access token at its identity provider, with a fresh
 * authentication forced (`authorize`: the authorization request's `max_age=0` and
 * `prompt=login`), then with the new token.
 */
export function reauthentication(access: AccessState, kind: 'signIn' | 'stepUp'): Record<string, unknown> {
  if (access.viaToken) return { authorize: { max_age: 0, prompt: 'login' } };
  return kind === 'signIn' ? { signInUrl: access.links.signInUrl } : { stepUpUrl: access.links.stepUpUrl };
}

/**
 * Puts the check in front of every root field of the schema, queries, mutations and
 * subscriptions alike, so it holds on every transport (HTTP and the socket run this schema) and
 * no new field can forget it. Nested fields are reached only through a root field, so they cost
 * nothing extra.
 */
export function gateRootFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields()) as Array<GraphQLField<unknown, { access: AccessState }>>) {
      const needed = accessOf(type.name, field.name);
      if (needed === 'session') continue;
      if (type === schema.getSubscriptionType()) {
        const subscribe = field.subscribe!;
        field.subscribe = (source, args, context, info) => {
          checkFieldAccess(context.access, needed);
          return subscribe(source, args, context, info);
        };
      } else {
        const resolve = field.resolve ?? defaultFieldResolver;
        field.resolve = (source, args, context, info) => {
          checkFieldAccess(context.access, needed);
          return resolve(source, args, context, info);
        };
      }
    }
  }
  return schema;
}
