#!/usr/bin/env bash
# Makes the demo station's audio: three small pieces synthesised by ffmpeg (chords and an arpeggio),
# in the formats Playola stations use (AAC in M4A at 44.1 kHz, MP3 at 48 kHz). The outputs are committed;
# run this again only to change them.
set -euo pipefail
cd "$(dirname "$0")/media"

# A chord every 6 s: root, third and fifth, each struck and decaying.
chords() { # $1: four roots  $2: four third ratios
  read -r r1 r2 r3 r4 <<<"$1"; read -r t1 t2 t3 t4 <<<"$2"
  local root="if(lt(t,6),$r1,if(lt(t,12),$r2,if(lt(t,18),$r3,$r4)))"
  local third="if(lt(t,6),$t1,if(lt(t,12),$t2,if(lt(t,18),$t3,$t4)))"
  local env="exp(-0.35*mod(t,6))*min(1,mod(t,6)/0.02)*min(1,(24-t)/0.5)"
  echo "0.16*$env*(sin(2*PI*$root*t)+0.8*sin(2*PI*$root*$third*t)+0.7*sin(2*PI*$root*1.4983*t)+0.3*sin(2*PI*$root*2*t))"
}
morning=$(chords "261.63 220 174.61 196" "1.2599 1.1892 1.2599 1.2599")
evening=$(chords "196 164.81 130.81 146.83" "1.2599 1.1892 1.2599 1.1892")
# Station ID: eight rising notes, a quarter second each, over a soft pad.
note="261.63*pow(2,floor(t*4)/12*2)"
jingle="0.25*exp(-6*mod(t,0.25))*min(1,mod(t,0.25)/0.005)*sin(2*PI*$note*t)*lt(t,2)+0.08*sin(2*PI*523.25*t)*min(1,t/0.3)*min(1,(5-t)/0.5)"

# Commas inside a filter argument must be escaped for the filter-graph parser.
esc() { printf '%s' "${1//,/\\,}"; }
morning=$(esc "$morning"); evening=$(esc "$evening"); jingle=$(esc "$jingle")
ffmpeg -v error -y -f lavfi -i "aevalsrc=$morning|$morning:s=44100:d=24" -c:a aac -b:a 96k "Morning Chords.m4a"
ffmpeg -v error -y -f lavfi -i "aevalsrc=$evening|$evening:s=48000:d=24" -c:a libmp3lame -b:a 96k "Evening Chords.mp3"
ffmpeg -v error -y -f lavfi -i "aevalsrc=$jingle|$jingle:s=44100:d=5" -c:a aac -b:a 96k "Station ID.m4a"
ls -l
