// Preloaded into a process under measurement (`--require`): answers 'measure' over IPC with its
// CPU time and, after a full collection (`--expose-gc`), its heap and RSS. Bench-only.
process.on('message', (message) => {
  if (message !== 'measure') return;
  if (global.gc) {
    global.gc();
    global.gc();
  }
  const memory = process.memoryUsage();
  process.send({ heapUsed: memory.heapUsed, rss: memory.rss, cpu: process.cpuUsage() });
});
// The IPC channel must not keep a process alive that is asked to stop.
process.channel?.unref();
