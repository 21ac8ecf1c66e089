import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's chromium as every browser test drives it (TOOLCHAIN.md): without the
 * background-networking flags it floods the closed network with refused connections.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  // playwright-core gives every launch a fresh temporary profile (its own --user-data-dir).
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
