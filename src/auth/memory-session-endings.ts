import type { SessionEndingsBus } from './session-endings.js';

/** One instance knows its own endings: nothing to tell anyone. */
export const memorySessionEndings: SessionEndingsBus = {
  async publish() {},
  onRemoteEnded() {},
};
