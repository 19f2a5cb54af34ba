// Preloaded into a process under measurement (`--require`): answers 'measure' over IPC with its
// CPU time, its event-loop delay p99 since the previous answer, and, after a full collection
// (`--expose-gc`), its heap and RSS (and the heap as it was before that collection). Bench-only.
const { monitorEventLoopDelay } = require('node:perf_hooks');

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
/** CPU microseconds spent in the collections forced here, left out of what is reported. */
let forcedCollectionMicros = 0;
process.on('message', (message) => {
  if (message !== 'measure') return;
  const loopDelayP99Ms = delay.percentile(99) / 1e6;
  delay.reset();
  const before = process.cpuUsage();
  const heapUsedBeforeGc = process.memoryUsage().heapUsed;
  if (global.gc) {
    global.gc();
    global.gc();
  }
  const memory = process.memoryUsage();
  const after = process.cpuUsage();
  const reported = { user: before.user - forcedCollectionMicros, system: before.system };
  forcedCollectionMicros += after.user + after.system - (before.user + before.system);
  process.send({ heapUsed: memory.heapUsed, heapUsedBeforeGc, rss: memory.rss, cpu: reported, loopDelayP99Ms });
});
// The IPC channel must not keep a process alive that is asked to stop.
process.channel?.unref();
