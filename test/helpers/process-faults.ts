// Preloaded into a service process by a test (`node --import ./test/helpers/process-faults.ts src/main.ts`):
// a line on its stdin makes a failure no handler catches, so the test can see what the process
// does last (decision 0270). `reject`: an unhandled rejection; `throw`: an uncaught exception.
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  for (const line of String(text).split('\n')) {
    if (line === 'reject') void Promise.reject(new Error('process-faults: a rejection nobody handles'));
    if (line === 'throw') {
      setImmediate(() => {
        throw new Error('process-faults: an exception nobody catches');
      });
    }
  }
});
// Not keeping the process alive by itself.
process.stdin.unref?.();
