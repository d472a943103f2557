"""The rig's hardware other than the camera: buttons (GPIO), the Pico link, LEDs and display.

Modules: :mod:`~pibg.hw.buttons` (gpiozero buttons -> ``ButtonEvent`` queue),
:mod:`~pibg.hw.link` (serial link to the Pico), :mod:`~pibg.hw.leds` and
:mod:`~pibg.hw.display` (render :class:`~pibg.effects.Effects`), :mod:`~pibg.hw.output`
(both at once, never blocking), :mod:`~pibg.hw.mock` (stand-ins for tests and laptop demos),
:mod:`~pibg.hw.pico_protocol` (the wire protocol, shared with the Pico firmware),
:mod:`~pibg.hw.storage` (disk space and full-disk errors), :mod:`~pibg.hw.rig` (all of it
for the main loop, built from a :class:`~pibg.config.Config`).
"""
