// widget/rating.js: the rating prompt, fetched by a widget only once its conversation is
// closed (rating-loader.ts), so widget.js does not carry it.
import { ratingPrompt } from "./rating.ts";

window.__botinboxRating = ratingPrompt;
