/** Entry: mounts the inbox. Built by vite into dist/inbox/ (see vite.config.ts). */
import { render } from "preact";
import { App } from "./app.js";
import "./styles.css";

render(<App />, document.getElementById("app")!);
