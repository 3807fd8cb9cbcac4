/** Starts the emulator on a port (0 = a free one) and returns its URL with the test handles. */
import type { AddressInfo } from 'node:net';
import { createEmulator, type Emulator } from './create-emulator.js';
import type { EmulatorOptions } from './emulator-options.js';

export interface StartEmulatorOptions extends EmulatorOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to listen on. @default 127.0.0.1 */
  host?: string;
}

export interface RunningEmulator extends Emulator {
  /** Base URL, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  port: number;
  host: string;
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const { port = 0, host = '127.0.0.1', ...emulatorOptions } = options;
  const emulator = createEmulator(emulatorOptions);
  await emulator.app.listen({ port, host });
  const address = emulator.app.server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // Spread would evaluate the windowsComputed getter once; keep it live.
  return Object.defineProperties(emulator as RunningEmulator, {
    url: { value: `http://${urlHost}:${address.port}`, enumerable: true },
    port: { value: address.port, enumerable: true },
    host: { value: host, enumerable: true },
  });
}
