/**
 * What a person is shown before approving a sampling request: enough to judge it (model,
 * hinted names, content kinds, audio size, the start of the prompts, the token budget),
 * never the media themselves, and long texts cut so the approvals list stays small.
 */
import type { ValidatedSampling } from "./request.js";

export const APPROVAL_TEXT_LIMIT = 200;

export interface SamplingApprovalMetadata {
  /** The chosen model, "provider/model". */
  model: string;
  hints: string[];
  contentKinds: string[];
  audioBytes: number;
  systemPrompt?: string;
  firstUserText?: string;
  maxTokens: number;
}

/** Cut to `limit` characters (an ellipsis marks the cut), never splitting a surrogate pair. */
export function cutText(text: string, limit = APPROVAL_TEXT_LIMIT): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit).join("")}…`;
}

export function samplingApprovalMetadata(request: ValidatedSampling, chosen: string): SamplingApprovalMetadata {
  return {
    model: chosen,
    hints: [...request.hints],
    contentKinds: [...request.contentKinds],
    audioBytes: request.audioBytes,
    ...(request.system === undefined ? {} : { systemPrompt: cutText(request.system) }),
    ...(request.firstUserText === undefined ? {} : { firstUserText: cutText(request.firstUserText) }),
    maxTokens: request.maxTokens,
  };
}
