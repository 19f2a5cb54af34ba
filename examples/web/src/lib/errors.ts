import { CombinedGraphQLErrors, ServerError } from '@apollo/client';

export interface GatewayProblem {
  /** The gateway's `extensions.code` (UNAUTHENTICATED, STEP_UP_REQUIRED, BAD_USER_INPUT…), or NETWORK. */
  code: string;
  message: string;
  extensions: Record<string, unknown>;
}

/** What went wrong, in the gateway's terms: its first error's code and message. */
export function gatewayProblem(error: unknown): GatewayProblem | undefined {
  if (!error) return undefined;
  if (CombinedGraphQLErrors.is(error)) {
    const first = error.errors[0];
    const extensions = (first?.extensions ?? {}) as Record<string, unknown>;
    return { code: String(extensions.code ?? 'ERROR'), message: first?.message ?? error.message, extensions };
  }
  if (ServerError.is(error) && error.statusCode === 401)
    return { code: 'UNAUTHENTICATED', message: 'You are signed out.', extensions: {} };
  return {
    code: 'NETWORK',
    message: 'The gateway cannot be reached. Check your connection and try again.',
    extensions: {},
  };
}

export function isSignedOut(error: unknown): boolean {
  return gatewayProblem(error)?.code === 'UNAUTHENTICATED';
}

/** A step-up (or a first second factor) the gateway asks for before money moves, with where to do it. */
export function stepUpUrlOf(error: unknown): string | undefined {
  const problem = gatewayProblem(error);
  if (problem?.code === 'STEP_UP_REQUIRED') return String(problem.extensions.stepUpUrl ?? '');
  if (problem?.code === 'MFA_REQUIRED') return String(problem.extensions.signInUrl ?? '');
  return undefined;
}
