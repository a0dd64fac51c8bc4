// The thread `translate()` runs each translation on, so that one which
// does not finish in time is ended with this worker, never with the page
// or the Node process that asked for it. Messages: {id, source, options,
// wasm} in; {id, result} or {id, error: {message, kind, file, line,
// column}} out.
import { load, translateSync, AtomportError } from './index.js';

async function answer({ id, source, options, wasm }) {
  try {
    await load(wasm);
    return { id, result: translateSync(source, options) };
  } catch (e) {
    const error = e instanceof AtomportError
      ? { message: e.message, kind: e.kind, file: e.file, line: e.line, column: e.column }
      : { message: String(e?.message ?? e), kind: 'translation' };
    return { id, error };
  }
}

if (typeof process !== 'undefined' && process.versions?.node) {
  const { parentPort } = await import('node:worker_threads');
  parentPort.on('message', async (m) => parentPort.postMessage(await answer(m)));
} else {
  self.onmessage = async (e) => self.postMessage(await answer(e.data));
}
