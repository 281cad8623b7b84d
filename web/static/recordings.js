// The reviewer page's recordings: a turn's "Play" button seeks the
// recording that holds the turn to its moment and plays it; other players
// pause.
(function () {
  "use strict";
  function players() {
    return Array.prototype.slice.call(document.querySelectorAll("audio.recording-player"));
  }
  function seekAndPlay(audio, seconds) {
    players().forEach(function (other) {
      if (other !== audio) other.pause();
    });
    var go = function () {
      audio.currentTime = seconds;
      var p = audio.play();
      if (p && p.catch) p.catch(function () { /* the reviewer presses play */ });
    };
    if (audio.readyState >= 1) {
      go();
    } else {
      audio.addEventListener("loadedmetadata", go, { once: true });
      audio.load();
    }
    audio.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest && ev.target.closest("button.play-at");
    if (!button) return;
    var audio = document.getElementById(button.dataset.player);
    var seconds = parseFloat(button.dataset.seconds);
    if (!audio || isNaN(seconds)) return;
    ev.preventDefault();
    seekAndPlay(audio, seconds);
  });
})();
