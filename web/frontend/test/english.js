// The English texts of the room page, as the server renders them: the
// tests of the labels read them from texts.en.json, which a Go test
// (TestRoomScriptTextsFile in package web) keeps equal to the catalogue.
import { readFileSync } from 'node:fs';
import { setTexts } from '../src/text.js';

setTexts(JSON.parse(readFileSync(new URL('./texts.en.json', import.meta.url), 'utf8')));
