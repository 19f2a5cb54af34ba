// Preloaded into a process under measurement (`--require`): answers 'measure' over IPC with its
// CPU time, its event-loop delay p99 since the previous answer, and, after a full collection
// (`--expose-gc`), its heap and RSS. Bench-only.
const { monitorEventLoopDelay } = require('node:perf_hooks');

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.on('message', (message) => {
  if (message !== 'measure') return;
  const loopDelayP99Ms = delay.percentile(99) / 1e6;
  delay.reset();
  // CPU time before the collection below, so a measurement does not count its own GC.
  const cpu = process.cpuUsage();
  if (global.gc) {
    global.gc();
    global.gc();
  }
  const memory = process.memoryUsage();
  process.send({ heapUsed: memory.heapUsed, rss: memory.rss, cpu, loopDelayP99Ms });
});
// The IPC channel must not keep a process alive that is asked to stop.
process.channel?.unref();
