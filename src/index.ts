// Probot entry: `probot run ./dist/src/index.js` loads this app function.
// Everything is configured from the environment (see .env.example).
import { issueLeases } from "./app.js";

export default issueLeases();
