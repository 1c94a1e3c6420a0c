// A second module of the example Worker, imported by index.js.

export function greet(greeting, name) {
  return `${greeting}, ${name}!\n`;
}
