import type { SessionEndingsBus } from './session-endings.js';

/** One instance knows its own endings: nothing to tell anyone. */
export const localSessionEndings: SessionEndingsBus = {
  async publish() {},
  onRemoteEnded() {},
};
