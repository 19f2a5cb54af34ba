/** Signing in at the sandbox identity provider as a person would: the sandbox package's driver of its pages. */
export { signInAtProvider } from '@open-finance-gateway/sandbox/testing';
