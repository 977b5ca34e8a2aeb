/**
 * Regex source for the words between a label and the value it states: "SSN: ", "PIN is ",
 * "pin = ", `"pin": "`, "PIN #". A dash is deliberately not a connector: "PIN-1234" reads as an
 * issue key. Every quantifier is bounded, so the connector cannot backtrack over more than a few
 * characters. The connector words are captured so callers can tell "pin: 1234" from "pin 1234".
 */
export const STATED_AS = String.raw`[ \t"']{0,4}((?:(?:is|was|:|=|#)[ \t"']{0,4}){0,2})`;
