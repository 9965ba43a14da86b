import { describe, expect, it } from "vitest";
import { createTextTail } from "../../bridge/src/text-tail.js";

describe("createTextTail", () => {
  it("keeps only the last maxChars, however large the chunks", () => {
    const tail = createTextTail(8);
    tail.append("abc");
    expect(tail.text()).toBe("abc");
    tail.append("defghij");
    expect(tail.text()).toBe("cdefghij");
    tail.append("x".repeat(100_000) + "END");
    expect(tail.text()).toBe("xxxxxEND");
    expect(tail.totalChars).toBe(3 + 7 + 100_003);
  });

  it("decodes a multi-byte character split across chunks", () => {
    const tail = createTextTail(16);
    const bytes = Buffer.from("héllo ✓", "utf8");
    const cut = bytes.indexOf(0xa9); // the second byte of é
    expect(tail.append(bytes.subarray(0, cut))).toBe("h");
    tail.append(bytes.subarray(cut));
    expect(tail.text()).toBe("héllo ✓");
  });
});
