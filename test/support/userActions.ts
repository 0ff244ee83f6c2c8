/**
 * Counts what a user does in an end-to-end task: each click, key press or text typed into a field is
 * one action, as a usability study counts them. A task test drives the page only through this, so
 * "in ≤ 2 actions" is asserted on what the test really did, and the log says which actions they were.
 */
import type { Locator, Page } from 'playwright-core';

export class UserActions {
  readonly log: string[] = [];

  constructor(private readonly page: Page) {}

  get count(): number {
    return this.log.length;
  }

  async click(target: Locator, what: string): Promise<void> {
    this.log.push(`click ${what}`);
    await target.click();
  }

  async press(key: string, what = key): Promise<void> {
    this.log.push(`press ${what}`);
    await this.page.keyboard.press(key);
  }

  /** Typing a word into a field and its live results showing is one action, as in any search box. */
  async type(target: Locator, text: string, what: string): Promise<void> {
    this.log.push(`type "${text}" into ${what}`);
    await target.fill(text);
  }
}
