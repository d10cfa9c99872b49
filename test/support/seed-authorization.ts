/**
 * The authorization request's parameters in the order the seed fixes them (docs/login-contract.md,
 * "SSO sign-in"): written once here, from the seed, so that every test of the URL,
 * and of what a pushed request (PAR) carries, holds the same list.
 */
export const SEED_AUTHORIZATION_PARAMETERS: readonly string[] = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'state',
  'nonce',
];
