#!/usr/bin/env node
'use strict';
// A standby serving process (docs/node-daemon.md, "The standby"): the node daemon's supervisor
// starts it beside the serving process with `--gate 4`. It is containerd-daemon.js under
// another name, so that every tool that finds the serving process by its command line passes
// it by; promoted, it names itself containerd-daemon.js (src/adapters/shim/os/standby.ts).
require('./containerd-daemon.js');
