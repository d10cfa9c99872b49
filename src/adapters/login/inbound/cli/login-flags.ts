import { Flags } from '@oclif/core';

/** Flags of the commands that open a browser. */
export const browserFlags = {
  'no-browser': Flags.boolean({
    description: 'Do not try to open a browser; only print the URL (headless or remote machines).',
  }),
};

/** Flags of the commands that await the identity provider's callback. */
export const callbackFlags = {
  ...browserFlags,
  port: Flags.integer({
    min: 1,
    max: 65535,
    description:
      'Callback port on 127.0.0.1 (default: the first free of 9876-9880, else any); pin it for an `ssh -L` tunnel.',
  }),
};

/** --device: the device authorization grant instead of the loopback callback. */
export const deviceFlags = {
  device: Flags.boolean({
    description:
      'Sign in with a code on any device (OAuth device grant) instead of a callback to this machine: for remote shells.',
    exclusive: ['port'],
  }),
};
