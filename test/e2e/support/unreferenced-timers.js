'use strict';
// Preloaded (NODE_OPTIONS=--require) into the CLI by test/e2e/login/unfinished-work.test.ts:
// every setTimeout is unreferenced, so any command that awaits one with nothing else
// on its event loop meets the bug class the guard exists for (an unreferenced wait).
const original = global.setTimeout;
global.setTimeout = function unreferencedSetTimeout(...args) {
  const timer = original.apply(this, args);
  timer.unref();
  return timer;
};
